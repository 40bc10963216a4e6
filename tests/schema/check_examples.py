#!/usr/bin/env python3
"""Validates every examples/*.yaml against docs/scenario.schema.json (the schema editors complete
from), so the schema and the examples cannot drift apart. The parser's own checks are tested in
C++ (src/workload/scenario_yaml_test.cc); this only holds the schema to real files.

Usage: check_examples.py SCHEMA.json EXAMPLES_DIR
Exit codes: 0 all valid, 1 a file is invalid, 2 bad usage, 77 jsonschema or yaml is missing
(CTest reports the test as skipped, never as passed).
"""
import json
import pathlib
import sys


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: check_examples.py SCHEMA.json EXAMPLES_DIR", file=sys.stderr)
        return 2
    try:
        import jsonschema
        import yaml
    except ImportError as error:
        print(f"skipped: {error.name} is not installed (Debian: python3-jsonschema, "
              f"python3-yaml; scripts/bootstrap installs them)")
        return 77

    schema = json.loads(pathlib.Path(sys.argv[1]).read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)

    examples = sorted(pathlib.Path(sys.argv[2]).glob("*.yaml"))
    if not examples:
        print(f"no examples/*.yaml in {sys.argv[2]}", file=sys.stderr)
        return 1
    failed = 0
    for path in examples:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        for error in errors:
            where = "/".join(str(part) for part in error.absolute_path) or "(top)"
            print(f"{path}: {where}: {error.message}")
        failed += bool(errors)
        if not errors:
            print(f"{path}: valid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
