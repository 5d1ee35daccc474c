#!/usr/bin/env bash
# One entry point for a fresh Debian machine: installs what tablebench needs, then runs it.
#
#   ./dev.sh test [pytest args]    the harness's full test suite (what CI runs)
#   ./dev.sh bench --parser=NAME [pytest args]   the benchmark on the committed default cases
#   ./dev.sh speed [pytest args]   the metric speed benchmarks (pytest-benchmark)
#   ./dev.sh setup                 install only
#
# System packages (TeX Live, poppler-utils, chromium, tesseract-ocr) come from apt when run as root and
# missing; Python packages go into .venv/ at the repo root. Before installing anything it says, in one
# line, what it installs and roughly how long that takes; DEV_SH_DRY_RUN=1 stops after that line.
set -euo pipefail
cd "$(dirname "$0")"

APT_PACKAGES=(texlive-latex-base texlive-latex-recommended texlive-latex-extra texlive-science
              texlive-fonts-recommended lmodern tex-gyre poppler-utils chromium
              tesseract-ocr tesseract-ocr-eng
              # generate --languages: xelatex, Russian patterns, fonts for ru/zh/ja/ar/hi (never cm-super:
              # it swaps the bitmap fallback fonts of default pages and so changes synth-v1's bytes)
              texlive-xetex texlive-lang-cyrillic fonts-paratype fonts-arphic-uming fonts-ipaexfont-mincho
              fonts-hosny-amiri fonts-lohit-deva
              # OCR in the languages of the multilingual pages
              tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-spa tesseract-ocr-rus tesseract-ocr-ell
              tesseract-ocr-chi-sim tesseract-ocr-jpn tesseract-ocr-ara tesseract-ocr-hin)

system_missing() {  # true when a system tool or font the tests use is absent
    command -v pdflatex >/dev/null || return 0
    command -v pdftoppm >/dev/null || return 0
    kpsewhich tgtermes.sty >/dev/null 2>&1 || return 0
    command -v chromium >/dev/null || return 0
    command -v tesseract >/dev/null || return 0
    command -v xelatex >/dev/null || return 0
    kpsewhich hyph-ru.tex >/dev/null 2>&1 || return 0
    fc-list ':family=Amiri' 2>/dev/null | grep -q . || return 0
    [ -f /usr/share/tesseract-ocr/5/tessdata/hin.traineddata ] || return 0
    return 1
}

can_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; }

STAMP=.venv/.tablebench-installed
venv_stale() {  # true when .venv is missing or was installed from another pyproject.toml
    [ -x .venv/bin/python ] && [ -f "$STAMP" ] \
        && [ "$(cat "$STAMP")" = "$(sha256sum pyproject.toml | cut -d' ' -f1)" ] && return 1
    return 0
}

# One line before anything is installed: what, and roughly how long. `with_system` adds the apt
# packages (test, setup); bench and speed need only the Python packages.
announce() {
    local with_system=$1 apt=0 pip=0
    if [ "$with_system" = 1 ] && system_missing; then
        if can_apt; then
            apt=1
        else
            echo "dev.sh: TeX Live / poppler-utils / chromium / tesseract-ocr missing and not root: tests needing them will skip" >&2
        fi
    fi
    venv_stale && pip=1
    local what=""
    [ "$apt" = 1 ] && what="TeX Live (with XeLaTeX and script fonts), poppler-utils, Chromium and Tesseract (with language packs) from apt"
    [ "$pip" = 1 ] && what="${what:+$what, and }a Python venv in .venv/ with tablebench and its packages (numpy, scipy, numba, PyMuPDF, pdfplumber, camelot, litellm, ...) from pip"
    if [ -n "$what" ]; then
        local how_long="a few minutes"
        [ "$apt" = 1 ] && [ "$pip" = 1 ] && how_long="several minutes"
        echo "dev.sh: installing $what; this takes $how_long, once (later runs skip it)" >&2
    fi
    if [ -n "${DEV_SH_DRY_RUN:-}" ]; then  # the message only: nothing installed, nothing run (tests/test_dev_sh.py)
        exit 0
    fi
}

setup_system() {
    system_missing && can_apt || return 0
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${APT_PACKAGES[@]}" >/dev/null 2> >(grep -v '^debconf: ' >&2)
}

# pip's output without its noise: -q leaves warnings and errors; this machine's index configuration
# may name folders that do not exist ('WARNING: Location ... is ignored'), and setuptools says on
# every editable install that it made one (its 'Editable installation.' notice). Errors still show,
# and the import check below fails the setup whatever pip printed.
pip_quiet() {
    PYTHONWARNINGS="ignore:Editable installation" .venv/bin/python -m pip "$@" -q --disable-pip-version-check \
        --root-user-action=ignore 2>&1 | grep -v '^WARNING: Location' >&2 || true
}

setup_venv() {
    venv_stale || return 0
    [ -x .venv/bin/python ] || python3 -m venv .venv
    pip_quiet install --upgrade pip
    pip_quiet install -e ".[all]"
    .venv/bin/python -c "import tablebench, numba, scipy, rapidfuzz, lxml" \
        || { echo "dev.sh: Python install failed" >&2; exit 1; }
    sha256sum pyproject.toml | cut -d' ' -f1 > "$STAMP"
}

setup() {  # setup [system]: announce, install, say how long it took
    local with_system=0
    [ "${1:-}" = system ] && with_system=1
    local started=$SECONDS
    announce "$with_system"
    [ "$with_system" = 1 ] && setup_system
    setup_venv
    local took=$((SECONDS - started))
    [ "$took" -ge 10 ] && echo "dev.sh: installed in $((took / 60)) min $((took % 60)) s" >&2
    return 0
}

usage() {
    echo "usage: ./dev.sh {test|bench|speed|setup} [pytest args]" >&2
    echo "  test   the harness's full test suite (what CI runs; about 6 minutes on 2 cores)" >&2
    echo "  bench  the benchmark on the committed default cases, e.g. ./dev.sh bench --parser=pdfplumber --report-only" >&2
    echo "  speed  the metric speed benchmarks; setup: install only" >&2
}

# no command: the usage, not the full suite (a bare ./dev.sh is someone finding out what it does)
cmd=${1:-}
shift || true
case "$cmd" in
    setup) setup system ;;
    test) setup system; exec .venv/bin/python -m pytest -n 2 "$@" ;;
    speed) setup; exec .venv/bin/python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks "$@" ;;
    bench) setup; exec .venv/bin/python -m pytest -p no:benchmark -n auto "$@" ;;  # the speed benchmarks' plugin off: no banner
    *) usage; exit 2 ;;
esac
