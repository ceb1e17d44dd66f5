"""The plugin's dialogs (built in code, every text through ``tr``)."""
