"""``python -m sts_extras.cli``: the same as the ``sts-extras`` console script."""

import sys

from sts_extras.cli.dispatch import main

if __name__ == "__main__":  # importing this module (pydoc, doctest collection) runs nothing
    sys.exit(main())
