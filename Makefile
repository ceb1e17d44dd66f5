# Graticule Georeferencer: set-up, tests, demo, benchmarks and packaging.
# Every target that needs Python runs `install` first, so each works on a fresh machine.

SHELL := /bin/bash
VENV := .venv
PYTHON := $(VENV)/bin/python
PIP := $(PYTHON) -m pip --disable-pip-version-check -q
STAMP := $(VENV)/.installed
export QT_QPA_PLATFORM ?= offscreen

# Debian 12 packages: QGIS and GDAL bindings (one GDAL per process: never a PyPI GDAL),
# and the scientific stack compiled against Debian's numpy. `qgis` brings qgis_process (the
# tests run the plugin in QGIS's own runtime); python3-opencv, -skimage and -tqdm are the
# plugin's Debian route (QGIS's system Python; inside .venv the pinned wheels take
# precedence); xvfb and xauth give a virtual display for screenshots of a real QGIS window.
APT_PACKAGES := python3-qgis qgis-providers python3-gdal gdal-bin python3-venv python3-pip \
	python3-numpy python3-scipy python3-matplotlib python3-pyproj python3-pil \
	pyqt5-dev-tools qttools5-dev-tools fonts-dejavu-core fonts-liberation2 fonts-ebgaramond fonts-paratype fonts-crosextra-caladea zip \
	qgis python3-opencv python3-skimage python3-tqdm xvfb xauth

BENCHES := metrics textdet chamfer-ap chart synth graticule georef georef-accuracy maparea blocks faults \
	scale real-shapes zero-input

.PHONY: install system-packages test lint demo bench $(addprefix bench-,$(BENCHES)) zip \
	transup transcompile docs screenshots train-blocks-net train-blocks-net-v2 train-edges-net train-edges-net-base train-edges-net-whole-left \
	train-numeral-net crossval-real-edges clean

install: system-packages $(STAMP)

system-packages:
	@tools/install-system-packages.sh $(APT_PACKAGES)

$(STAMP): requirements.txt requirements-dev.txt constraints.txt | system-packages
	@test -x $(PYTHON) || /usr/bin/python3 -m venv --system-site-packages $(VENV)
	$(PIP) install -c constraints.txt -r requirements.txt -r requirements-dev.txt
	$(PIP) install -c constraints.txt --no-deps icdar21-mapseg-eval
	$(PYTHON) -c "import numpy, osgeo.gdal, qgis.core, cv2, shapely; \
		assert numpy.__version__ == '1.24.2', numpy.__version__"
	@touch $@
	@echo "install: ready ($(VENV))"

test: install transcompile
	$(PYTHON) -m pytest

lint: install
	$(PYTHON) -m ruff check .

demo: install
	$(PYTHON) -m core.demo

# Benchmarks print numbers; they are not part of `make test`. See docs/benchmarks.md.
bench: $(addprefix bench-,$(BENCHES))

define bench_rule
bench-$(1): install
	$$(PYTHON) -m benchmarks.bench_$(subst -,_,$(1))
endef
$(foreach b,$(BENCHES),$(eval $(call bench_rule,$(b))))

zip: install transcompile
	$(PYTHON) tools/make_zip.py

transup: install
	pylupdate5 -noobsolete $$(find plugin __init__.py -name '*.py' | sort) -ts i18n/graticule_georeferencer_fr.ts

transcompile: system-packages
	@for ts in i18n/*.ts; do [ -e "$$ts" ] || continue; \
		qm=$${ts%.ts}.qm; [ "$$qm" -nt "$$ts" ] || lrelease -silent "$$ts" -qm "$$qm"; done

# Dev only: retrain core/blocks/models/block_net.onnx from generated sheets (torch, CPU; about
# 25 min on 2 cores). The plugin never needs torch: core.blocks runs the ONNX file with OpenCV.
# the committed block network: the second model (train-blocks-net-v2, kept in commit 3f52d4f)
# fine-tuned on domain-randomized sheets (core/blocks/models/MODEL.md)
train-blocks-net: install
	$(PIP) install -c constraints.txt -r requirements-train.txt
	mkdir -p bench-output
	git show 3f52d4f:core/blocks/models/block_net.onnx > bench-output/block_net_v2.onnx
	$(PYTHON) -m tools.train_blocks_net --init bench-output/block_net_v2.onnx --lr 1e-3 --sheets 64 --steps 600 --minutes 90 --wise 0.5

train-blocks-net-v2: install
	$(PIP) install -c constraints.txt -r requirements-train.txt
	$(PYTHON) -m tools.train_blocks_net --recipe varied --sheets 48 --steps 2600 --stop-step 2160 --minutes 60

# The kept stop-25 model (commit e983d80) and its geometry file, the base of the fine-tunings
# of the edge network below (the .json first, so that a present .onnx always has its threshold beside it).
KEPT_EDGE_BASE := bench-output/edge_net_e983d80.onnx
$(KEPT_EDGE_BASE):
	mkdir -p bench-output
	git show e983d80:core/blocks/models/edge_net.json > $(@:.onnx=.json)
	git show e983d80:core/blocks/models/edge_net.onnx > $@.tmp && mv $@.tmp $@

# Dev only: retrain core/blocks/models/edge_net.onnx (the shapes level's edge network) on the
# LEFT half of the real 1925 crop and a few generated sheets (torch, CPU). The committed model
# (stop 31): the stop-25 model (train-edges-net-base, kept in commit e983d80; threshold chosen
# on the left half's validation strip) fine-tuned on the whole left half, that strip included,
# half the patches crossed by light straight lines, a quarter with their outlines inked thick,
# 30 % with short gaps in them (4000 steps: 17-33 min, one thread; from the kept base unless
# train-edges-net-base made another). Its test half: `make bench-real-shapes`.
train-edges-net: install $(KEPT_EDGE_BASE)
	$(PIP) install -c constraints.txt -r requirements-train.txt
	base=bench-output/edge_net_base.onnx; [ -e $$base ] || base=$(KEPT_EDGE_BASE); \
	$(PYTHON) -m tools.train_edges_net --init $$base --whole-left \
		--lr 5e-4 --steps 4000 --minutes 40 --threads 1 --grid-lines 0.5 \
		--thick-outlines 0.25 --outline-gaps 0.3

# Dev only: how the base model of train-edges-net was trained (columns 0-3636 of the crop,
# threshold chosen on the validation strip 3700-4436; about 75 min, one thread), written to
# bench-output/edge_net_base.onnx. Its time budget stops it, so it is close to, not bit for
# bit, the kept one; train-edges-net then fine-tunes whatever is there.
train-edges-net-base: install
	$(PIP) install -c constraints.txt -r requirements-train.txt
	mkdir -p bench-output
	$(PYTHON) -m tools.train_edges_net --minutes 90 --steps 9000 --synth 6 --threads 1 \
		--out bench-output/edge_net_base.onnx

# Dev only, an experiment (stop 29, not kept: see core/blocks/models/EDGE_MODEL.md): the base
# model (commit e983d80) fine-tuned on the whole left half of the crop, validation strip
# included, without the crossing lines (about 30 min, one thread), written to
# bench-output/edge_net_whole_left.onnx.
train-edges-net-whole-left: install $(KEPT_EDGE_BASE)
	$(PIP) install -c constraints.txt -r requirements-train.txt
	$(PYTHON) -m tools.train_edges_net --init $(KEPT_EDGE_BASE) --whole-left \
		--lr 5e-4 --steps 4000 --minutes 40 --threads 1 \
		--out bench-output/edge_net_whole_left.onnx

# Dev only: retrain core/gridlabels/models/numeral_net.onnx, the numeral reader of grid
# values, on numerals rendered in the fonts Debian ships (torch, CPU; fixed seeds and steps).
# The training fonts are dev-only packages; fonts-paratype and fonts-crosextra-caladea (the
# held-out benchmark styles) are never drawn. Card: core/gridlabels/models/NUMERAL_MODEL.md.
TRAIN_FONTS := fonts-linuxlibertine fonts-texgyre fonts-oldstandard fonts-lmodern fonts-cmu \
	fonts-junicode fonts-freefont-otf fonts-sil-gentium fonts-adf-accanthis fonts-adf-baskervald \
	fonts-roboto fonts-open-sans fonts-croscore fonts-cardo fonts-sil-charis fonts-gfs-didot \
	fonts-gfs-bodoni-classic
# Three stages (about 1.5 h on 2 idle cores): rendered numerals (the step-2000 snapshot of a
# 4000-step schedule), then turned words and map words read as nothing, then half real
# labels of the three shared Jacoubet sheets (../shared; tools/real_label_crops.py).
NUMERAL_WORK := bench-output/numeral
train-numeral-net: install
	@tools/install-system-packages.sh $(TRAIN_FONTS)
	$(PIP) install -c constraints.txt -r requirements-train.txt
	mkdir -p $(NUMERAL_WORK)
	$(PYTHON) -m tools.train_numeral_net --steps 4000 --out $(NUMERAL_WORK)/stage1.onnx
	$(PYTHON) -m tools.real_label_crops $(NUMERAL_WORK)/stage1.step2000.onnx $(NUMERAL_WORK)/real_labels.npz
	$(PYTHON) -m tools.train_numeral_net --init $(NUMERAL_WORK)/stage1.step2000.onnx \
		--steps 3000 --lr 1.5e-3 --out $(NUMERAL_WORK)/stage2.onnx
	$(PYTHON) -m tools.train_numeral_net --init $(NUMERAL_WORK)/stage2.onnx \
		--real $(NUMERAL_WORK)/real_labels.npz --real-sheets 020,021,049 --real-share 0.5 \
		--real-turned 0.05 --steps 900 --lr 1e-3 --snapshot-every 0 \
		--out core/gridlabels/models/numeral_net.onnx

# Dev only: two-fold cross-validation of a learned edge map on the real 1925 crop (torch, CPU;
# about 30 min). An experiment on the closed-shapes test set; no model is committed.
crossval-real-edges: install
	$(PIP) install -c constraints.txt -r requirements-train.txt
	$(PYTHON) -m tools.crossval_real_edges --minutes 25

# Pictures of the plugin in a real QGIS window (Xvfb): docs/images/qgis-*.png
screenshots: install transcompile
	$(PYTHON) tools/qgis_screenshots.py

# The manual: a static site from docs/ into site/ (MkDocs, Material theme, API pages from the
# docstrings); --strict: a broken link or anchor or a missing page stops it (make test too)
docs: install
	$(PYTHON) -m mkdocs build --strict --site-dir site

clean:
	rm -rf build dist site .pytest_cache .ruff_cache demo-output bench-output
	find . -name __pycache__ -prune -exec rm -rf {} +
