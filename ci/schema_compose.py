#!/usr/bin/python3
"""Composes spec/schema/optcert-vectors-1.schema.json, the one file external users validate
against (spec/vectors.md), from spec/schema/optcert-vectors-1.base.json (what every family
shares) and one fragment per algorithm, spec/schema/families/<fam>.json: {"algorithm": the
vector files' "algorithm", "testGroup": the name of its group's definition, "$defs": the
definitions it adds}. The algorithm enum and testGroups' oneOf list the fragments in file-name
order, and $defs gains their definitions after the shared ones.
usage: ci/schema_compose.py            rewrites the full schema
       ci/schema_compose.py --check    exit 1 if the committed full schema is not the composition
A malformed fragment (missing key, a definition defined twice) exits 2."""
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent
schema_dir = root / "spec/schema"
full_path = schema_dir / "optcert-vectors-1.schema.json"


def bad(msg):
    print(f"schema_compose: {msg}", file=sys.stderr)
    sys.exit(2)


def compose():
    schema = json.loads((schema_dir / "optcert-vectors-1.base.json").read_text())
    props = schema["properties"]
    for path in sorted((schema_dir / "families").glob("*.json")):
        frag = json.loads(path.read_text())
        if sorted(frag) != ["$defs", "algorithm", "testGroup"]:
            bad(f"{path}: keys must be algorithm, testGroup, $defs")
        if frag["testGroup"] not in frag["$defs"]:
            bad(f"{path}: testGroup {frag['testGroup']} is not among its $defs")
        for name, definition in frag["$defs"].items():
            if name in schema["$defs"]:
                bad(f"{path}: $defs/{name} is defined twice")
            schema["$defs"][name] = definition
        props["algorithm"]["enum"].append(frag["algorithm"])
        props["testGroups"]["items"]["oneOf"].append({"$ref": f"#/$defs/{frag['testGroup']}"})
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


text = compose()
if sys.argv[1:] == ["--check"]:
    if full_path.read_text() != text:
        print(f"{full_path} is not the composition of its base and families/*.json: "
              "run ci/schema_compose.py and commit the result")
        sys.exit(1)
    print(f"{full_path.name}: the composition of the base and "
          f"{len(list((schema_dir / 'families').glob('*.json')))} fragments")
elif sys.argv[1:]:
    bad("usage: ci/schema_compose.py [--check]")
else:
    full_path.write_text(text)
