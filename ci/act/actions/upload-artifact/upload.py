"""upload-artifact's stand-in: copy the matched files into $MV_ACT_ARTIFACTS/<name>/."""

import glob
import os
import shutil
import sys
from pathlib import Path

name, if_none = os.environ["NAME"], os.environ["IF_NONE"]
store = Path(os.environ["MV_ACT_ARTIFACTS"]) / name
found: list[Path] = []
for pattern in filter(None, (line.strip() for line in os.environ["PATHS"].splitlines())):
    matches = glob.glob(os.path.expanduser(pattern), recursive=True)
    found += [Path(m).absolute() for m in matches]
files = sorted({f for p in found for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file()})
if not files:
    message = f"no files found for artifact {name!r}"
    if if_none == "error":
        sys.exit(f"error: {message}")
    print(f"{'warning' if if_none == 'warn' else 'note'}: {message}")
    sys.exit(0)
root = Path(os.path.commonpath([f.parent for f in files]))
shutil.rmtree(store, ignore_errors=True)  # an artifact of an earlier run, replaced
for f in files:
    dest = store / f.relative_to(root)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(f, dest)
print(f"upload-artifact stand-in: {len(files)} file(s) into {store}")
