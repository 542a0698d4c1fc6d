#!/usr/bin/env python3
"""Checks JUnit XML reports (`flowrun run --junit PATH`) against an XML Schema.

Usage: validate_junit.py SCHEMA REPORT.xml...

SCHEMA is Jenkins' xUnit junit-10.xsd (junit-10.xsd beside this script), the schema CI tools
that read JUnit are most often held to. Prints every problem as `REPORT: problem` and exits 1 if
any; else prints `ok: N reports` and exits 0. Needs python3 and the `xmlschema` package.
"""
import sys

import xmlschema


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    schema = xmlschema.XMLSchema(sys.argv[1])
    problems = 0
    for report in sys.argv[2:]:
        for error in schema.iter_errors(report):
            problems += 1
            print(f"{report}: {error.path}: {error.reason}")
    if problems:
        return 1
    print(f"ok: {len(sys.argv) - 2} reports")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
