"""action-junit-report's stand-in: the totals of the JUnit files, read with junitparser."""

import glob
import os
import sys

from junitparser import JUnitXml

files = sorted(glob.glob(os.environ["REPORTS"], recursive=True))
if not files:
    sys.exit(f"error: no JUnit file matches {os.environ['REPORTS']!r}")
tests = failures = errors = skipped = 0
for path in files:
    xml = JUnitXml.fromfile(path)
    tests += int(xml.tests or 0)
    failures += int(xml.failures or 0)
    errors += int(xml.errors or 0)
    skipped += int(xml.skipped or 0)
print(f"{os.environ['CHECK']}: {tests} tests, {failures} failed, {errors} errors, "
      f"{skipped} skipped ({len(files)} file(s))")
if tests == 0:
    sys.exit("error: the JUnit report holds no test")
