# Trusting the Support Vector Machine: build, test and benchmark.
# A newcomer needs only `make book` and `make test`; both create .venv when it is missing.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CHAPTER ?= svm
JB     := $(BIN)/jupyter-book build . -W -n --keep-going

export MPLBACKEND := Agg
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# Progress bars (tqdm, on stderr) show in JupyterLab and on the command line; the book build runs
# with SVMTRUST_PROGRESS=0, and nbval switches them off in book/conftest.py, so that no bar lands
# in a rendered or stored output.

# Debian packages: Chromium for the layout checks of the HTML (tests/html/test_layout.py) and
# TeX Live for the PDF. tools/need_debian.sh installs the missing ones when run as root and
# otherwise prints the apt-get command and stops.
BROWSER_DEBS := chromium
TEX_DEBS := latexmk texlive-xetex texlive-latex-extra texlive-fonts-recommended \
	texlive-fonts-extra texlive-plain-generic lmodern fonts-freefont-otf xindy poppler-utils
# What the HTML tests ask of the PDF: REQUIRE_PDF=1 (as in `make test`) fails when it is missing.
REQUIRE_PDF ?= 0

.PHONY: help venv book pdf latex latex-both latex-tex latex-book latex-handout test chapters-run lint unit nbval book-clean chapters html-check browser tex bench \
	reproduce lab strip clean

help:
	@echo "make book       build the HTML book into _build/html (executes every chapter)"
	@echo "make pdf        the whole book as one PDF, _build/latex/trusting-svm.pdf (TeX Live)"
	@echo "make pdf SOLUTIONS=0   the handout: the same without the solutions,"
	@echo "                _build/latex/trusting-svm-handout.pdf"
	@echo "make test       style (ruff), unit tests, every chapter executed once and checked as nbval"
	@echo "                checks it, a from-scratch -W build reusing that execution,"
	@echo "                the PDF, and the HTML checked in a headless Chromium"
	@echo "make bench      timing comparisons (tests/benchmarks)"
	@echo "make reproduce CHAPTER=NAME   run a chapter's protocol at paper scale"
	@echo "make lab        open the chapters in JupyterLab"
	@echo "make strip      keep in the chapters only the outputs nbval checks"
	@echo "make clean      remove _build"

venv: $(STAMP)

$(STAMP): requirements.txt lib/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

book: $(STAMP)
	SVMTRUST_PROGRESS=0 $(JB)

# The whole book through Jupyter Book's LaTeX builder (XeLaTeX), reusing the execution cache of
# the HTML build (about 2.5 minutes after `make book`, 148 s on 2026-11-29: about 60 s for Sphinx
# to write the LaTeX source, 75 s before book/_ext/collector.py made Python's garbage collector
# rarer, 65 s for latexmk's XeLaTeX runs, the rest the HTML build that links the PDF).
# tools/latex_log.py fails on an undefined reference or citation and on an overfull box over
# 20 pt. When the HTML book is built, an incremental build then links the PDF from it
# (book/_ext/book_pdf.py copies it beside the pages). SOLUTIONS=0 builds the handout for
# teaching instead, the same book without the solutions of the exercises,
# _build/latex/trusting-svm-handout.pdf; it leaves the HTML alone, and the next `make pdf` or
# `make book` links it.
#
# One Sphinx build writes the LaTeX source of both (`latex-tex`): the book's, in its own tree
# _build/pdf/book (its doctrees apart, the execution cache shared through a link, so that it
# and the HTML build can run at once, as `make test` runs them; a LaTeX build from the HTML
# build's environment reads no page and writes the same source byte for byte in 38 s instead of
# 60, but it must wait for the HTML build: `make test`'s book and PDFs took 154 s that way
# against 120 s, 2026-11-29), whose solutions are marked by comment lines;
# then tools/handout_tex.py cuts the handout's source from it into _build/pdf/handout, with the
# handout's title page. latexmk then makes each PDF in its own folder (`latex-book`,
# `latex-handout`), the two at once on two cores with `make -j2 latex-both` (as `make test`
# does); the PDF, its log, LaTeX source and .aux are then copied into _build/latex.
SOLUTIONS ?= 1
ifeq ($(filter $(SOLUTIONS),0 1),)
$(error SOLUTIONS must be 1 (the book with the solutions) or 0 (the handout), not '$(SOLUTIONS)')
endif
LATEX_BOOK := _build/pdf/book/_build/latex
BOOK_PDF := trusting-svm.pdf
HANDOUT_PDF := trusting-svm-handout.pdf
LATEX_HANDOUT := _build/pdf/handout/_build/latex

pdf: latex
	if [ $(SOLUTIONS) = 1 ] && [ -d _build/html ]; then SVMTRUST_PROGRESS=0 $(JB); fi

# The PDF that SOLUTIONS names.
latex: latex-$(if $(filter 0,$(SOLUTIONS)),handout,book)

# The two PDFs (at once with `make -j2 latex-both`).
latex-both: latex-book latex-handout

# The LaTeX source of the book (one Sphinx build) and the handout's, cut from it.
latex-tex: $(STAMP) tex
	mkdir -p _build/.jupyter_cache _build/pdf/book/_build _build/latex
	ln -sfn ../../../.jupyter_cache _build/pdf/book/_build/.jupyter_cache
	SVMTRUST_PROGRESS=0 \
		$(BIN)/jupyter-book build . -W -n --keep-going --builder latex --path-output _build/pdf/book
	$(BIN)/python tools/handout_tex.py $(LATEX_BOOK)/$(BOOK_PDF:.pdf=.tex) $(LATEX_HANDOUT)

# A PDF from its LaTeX source: Sphinx's Makefile in the folder runs latexmk (XeLaTeX until the
# references settle, as `jupyter-book build --builder pdflatex` does), then the log is checked.
# LATEXMKOPTS=-xelatex (as Sphinx's Makefile advises for latexmk 4.52b or later): every XeLaTeX run
# stops at the .xdv and xdvipdfmx writes the PDF once, at the end, instead of after each of the
# three runs (a run: 17.6 s instead of 20.2 s, and 17.1 s of processor time instead of 23.2;
# measured on the book, 2026-11-29).
latex-book: LATEX_DIR := $(LATEX_BOOK)
latex-book: PDF_NAME := $(BOOK_PDF)
latex-handout: LATEX_DIR := $(LATEX_HANDOUT)
latex-handout: PDF_NAME := $(HANDOUT_PDF)
latex-book latex-handout: latex-tex
	rm -f _build/latex/$(PDF_NAME) $(LATEX_DIR)/$(PDF_NAME)
	$(MAKE) -C $(LATEX_DIR) all-pdf LATEXMKOPTS=-xelatex
	test -s $(LATEX_DIR)/$(PDF_NAME)
	$(BIN)/python tools/latex_log.py $(LATEX_DIR)/$(PDF_NAME:.pdf=.log)
	cp $(addprefix $(LATEX_DIR)/$(basename $(PDF_NAME)),.pdf .log .tex .aux) _build/latex/

# Each chapter runs once (`make chapters-run`), checked as nbval checks it; a build from scratch
# renders that execution while the one LaTeX build (the source of both PDFs) reads the same
# execution cache, then latexmk makes the two PDFs at once. The HTML links both PDFs before
# they exist (BOOK_PDFS_PENDING=1, book/_ext/book_pdf.py), and they are copied beside its pages
# once built: no second HTML build to link them.
test: $(STAMP)
	@date '+%T make test: lint'
	$(MAKE) lint
	@date '+%T make test: unit tests'
	$(MAKE) unit
	@date '+%T make test: every chapter executed once and checked'
	$(MAKE) chapters-run
	@date '+%T make test: the book from scratch, the PDF and the handout, from that execution'
	BOOK_PDFS_PENDING=1 $(MAKE) -j2 --output-sync=target book latex-book latex-handout
	cp $(addprefix _build/latex/,$(BOOK_PDF) $(HANDOUT_PDF)) _build/html/
	@date '+%T make test: the HTML in a browser'
	$(MAKE) html-check REQUIRE_PDF=1
	@date '+%T make test: passed'

# Style: ruff's linter and formatter (configuration in ruff.toml), over the library, the tests,
# the tools and the chapters.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The unit tests and the Examples of the estimators' docstrings (run as doctests), in one run on
# every core: pytest-xdist, one worker a core, so one BLAS thread each (with two, a worker's
# numpy spins on the core the other worker is using: 175 s against 200 s on two cores,
# 2026-11-29). --doctest-modules finds no doctest in tests/, only in the modules named here.
ONE_BLAS_THREAD := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
DOCTESTED := $(addprefix lib/svmtrust/,tcm_nn.py nonconformity_selection.py split_conformal.py \
	transduction.py svm_distance.py venn_abers_svm.py pipeline.py multiplicity.py experiments/tables.py)
unit: $(STAMP)
	$(ONE_BLAS_THREAD) $(BIN)/python -m pytest tests $(DOCTESTED) --doctest-modules -q \
		-p no:cacheprovider -n auto --durations=10 --ignore=tests/benchmarks --ignore=tests/html

# As run.md gives it, with no environment variable: book/conftest.py switches progress bars off.
nbval: $(STAMP)
	$(BIN)/python -m pytest --nbval-lax --nbval-cell-timeout=900 -q -p no:cacheprovider --durations=15 book

# A build from scratch: an incremental build that finds nothing changed exits 0 even when a
# cell is broken, so the gate removes _build first.
book-clean: $(STAMP)
	rm -rf _build
	SVMTRUST_PROGRESS=0 $(JB)

# The chapters executed once, two at a time (tools/run_chapters.py, each kernel with one BLAS
# thread and one protocol worker on two cores): a cell that raises or a checked output that
# differs from the stored one fails, as under nbval; the executed chapters go to the build's
# execution cache, so the from-scratch build that follows renders them without
# executing them again.
chapters: chapters-run
	SVMTRUST_PROGRESS=0 $(JB)

# The first half of `make chapters`: the execution, checked, into a new build's cache. `make test`
# then runs the HTML build and the two LaTeX builds (each in a tree of its own) two at a time.
chapters-run: $(STAMP)
	rm -rf _build
	$(BIN)/python tools/run_chapters.py --jobs 2

# Two workers, one test file each at a time (--dist loadfile), in the order tests/html/conftest.py
# gives: the layout checks of test_layout.py measure every page in two Chromiums while the other
# files run in the other worker, which parses each page once for all of them.
html-check: $(STAMP) browser
	REQUIRE_HTML=1 REQUIRE_PDF=$(REQUIRE_PDF) $(BIN)/python -m pytest tests/html -q \
		-p no:cacheprovider -n 2 --dist loadfile --no-loadscope-reorder --durations=5

browser:
	@[ -n "$${CHROMIUM:-}" ] || command -v chromium >/dev/null || tools/need_debian.sh $(BROWSER_DEBS)

tex:
	@tools/need_debian.sh $(TEX_DEBS)

# Progress bars off (SVMTRUST_PROGRESS=0): the benchmarks print their tables to the terminal, and a
# machine's bar (shown after 3 s) would land in them.
bench: $(STAMP)
	SVMTRUST_PROGRESS=0 $(BIN)/python -m pytest tests/benchmarks -q -s -p no:cacheprovider

reproduce: $(STAMP)
	mkdir -p results
	$(BIN)/python -m svmtrust.experiments $(CHAPTER) --scale paper --seed 0 --n-jobs -1 \
		--output results/$(CHAPTER)-paper.csv

lab: $(STAMP)
	$(BIN)/jupyter lab book

# After a chapter is executed in place: keep only the outputs nbval compares (readable diffs).
strip: $(STAMP)
	$(BIN)/python tools/strip_outputs.py

clean:
	rm -rf _build
