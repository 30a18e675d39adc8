"""download-artifact's stand-in: copy stored artifacts into the workspace."""

import fnmatch
import os
import shutil
import sys
from pathlib import Path

store = Path(os.environ["MV_ACT_ARTIFACTS"])
name, pattern, dest = os.environ["NAME"], os.environ["PATTERN"], Path(os.environ["DEST"])
merge = os.environ["MERGE"] == "true"
stored = sorted(p.name for p in store.iterdir()) if store.is_dir() else []
if name:
    if name not in stored:
        sys.exit(f"error: no artifact {name!r} (stored: {', '.join(stored) or 'none'})")
    chosen, into = [name], {name: dest}
else:
    chosen = [n for n in stored if fnmatch.fnmatch(n, pattern or "*")]
    into = {n: dest if merge else dest / n for n in chosen}
    if not chosen:
        sys.exit(f"error: no artifact matches {pattern!r} (stored: {', '.join(stored) or 'none'})")
for n in chosen:
    shutil.copytree(store / n, into[n], dirs_exist_ok=True)
print(f"download-artifact stand-in: {', '.join(chosen)} into {dest}")
