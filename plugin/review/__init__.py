"""The GCP review panel: a dock to check, correct and refit a georeference."""
