#!/usr/bin/env bash
# One entry point for a fresh Debian machine: installs what tablebench needs, then runs it.
#
#   ./dev.sh test [pytest args]    the harness's full test suite (what CI runs)
#   ./dev.sh bench --parser=NAME [pytest args]   the benchmark on the committed default cases
#   ./dev.sh speed [pytest args]   the metric speed benchmarks (pytest-benchmark)
#   ./dev.sh setup                 install only
#
# System packages (TeX Live, poppler-utils, chromium, tesseract-ocr) come from apt when run as root and
# missing; Python packages go into .venv/ at the repo root.
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

setup_system() {
    local missing=0
    command -v pdflatex >/dev/null || missing=1
    command -v pdftoppm >/dev/null || missing=1
    kpsewhich tgtermes.sty >/dev/null 2>&1 || missing=1
    command -v chromium >/dev/null || missing=1
    command -v tesseract >/dev/null || missing=1
    command -v xelatex >/dev/null || missing=1
    kpsewhich hyph-ru.tex >/dev/null 2>&1 || missing=1
    fc-list ':family=Amiri' 2>/dev/null | grep -q . || missing=1
    [ -f /usr/share/tesseract-ocr/5/tessdata/hin.traineddata ] || missing=1
    if [ "$missing" = 1 ]; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            echo "dev.sh: installing TeX Live (+xelatex, script fonts), poppler-utils, chromium and tesseract-ocr (+language packs) from apt (about 3 min)" >&2
            apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                "${APT_PACKAGES[@]}" >/dev/null
        else
            echo "dev.sh: TeX Live / poppler-utils / chromium / tesseract-ocr missing and not root: tests needing them will skip" >&2
        fi
    fi
}

setup_venv() {
    [ -x .venv/bin/python ] || python3 -m venv .venv
    local stamp=.venv/.tablebench-installed
    local want
    want=$(sha256sum pyproject.toml | cut -d' ' -f1)
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        echo "dev.sh: installing Python packages into .venv" >&2
        .venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v '^WARNING: Location' >&2 || true
        .venv/bin/python -m pip install -q -e ".[all]" 2>&1 | grep -v '^WARNING: Location' >&2 || true
        .venv/bin/python -c "import harness, numba, scipy, rapidfuzz, lxml" \
            || { echo "dev.sh: Python install failed" >&2; exit 1; }
        echo "$want" > "$stamp"
    fi
}

cmd=${1:-test}
shift || true
case "$cmd" in
    setup) setup_system; setup_venv ;;
    test) setup_system; setup_venv; exec .venv/bin/python -m pytest -n 2 "$@" ;;
    speed) setup_venv; exec .venv/bin/python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks "$@" ;;
    bench) setup_venv; exec .venv/bin/python -m pytest -n auto "$@" ;;
    *) echo "usage: ./dev.sh {test|bench|speed|setup} [pytest args]" >&2; exit 2 ;;
esac
