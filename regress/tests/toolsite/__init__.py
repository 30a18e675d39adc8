"""The folder toolhook.py puts first on PYTHONPATH for the processes the tests start: its
sitecustomize.py installs the marker guard's hook in each (a package only to ship it)."""
