#!/usr/bin/env python3
"""Extract invoice fields from text (stdin or a .txt export of the PDF) as JSON.

Usage: extract.py [--probe] FILE
Only the standard library is used, so it runs anywhere python3 does.
"""
import json
import re
import sys

PATTERNS = {
    "invoice_number": r"invoice\s*(?:no\.?|number|#)\s*[:#]?\s*([A-Z0-9-]+)",
    "issue_date": r"(?:invoice|issue)\s*date\s*[:]?\s*(\d{4}-\d{2}-\d{2})",
    "due_date": r"due\s*date\s*[:]?\s*(\d{4}-\d{2}-\d{2})",
    "total_amount": r"total\s*(?:due)?\s*[:]?\s*([0-9][0-9.,]*)",
}


def extract(text: str) -> dict:
    fields = {}
    for name, pattern in PATTERNS.items():
        match = re.search(pattern, text, re.IGNORECASE)
        fields[name] = match.group(1) if match else None
    return fields


def main(argv: list) -> int:
    probe = "--probe" in argv
    paths = [a for a in argv if not a.startswith("--")]
    text = open(paths[0], encoding="utf-8", errors="replace").read() if paths else sys.stdin.read()
    if probe:
        print("text layer: yes" if text.strip() else "text layer: no (needs OCR)")
        return 0
    print(json.dumps(extract(text), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
