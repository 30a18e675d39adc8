"""Reading a TOML file with one-line errors: the descriptors and the regression lists."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from typing import Any

from montverif.host.errors import ConfigError
from montverif.host.readback import CorruptFile, read_text


def read_toml(path: Path, where: str, error: type[ValueError] = ConfigError) -> dict[str, Any]:
    """The parsed file; `error` with a one-line message (naming `where`) if it cannot be
    read or is not TOML."""
    try:
        text = read_text(path)
    except CorruptFile as exc:  # not a regular file, not UTF-8
        raise error(f"{where}: {str(exc).split(': ', 1)[-1]}") from None
    except OSError as exc:
        raise error(f"cannot read {where}: {exc.strerror}") from None
    try:
        return tomllib.loads(text)
    except OSError as exc:
        raise error(f"cannot read {where}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{where}: {exc}") from None
    except ValueError:  # an integer longer than Python converts (its int-string limit)
        raise error(f"{where}: an integer of more than {sys.get_int_max_str_digits()} "
                    "digits") from None
