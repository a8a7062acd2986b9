"""``python -m sts_extras.cli``: the same as the ``sts-extras`` console script."""

import sys

from sts_extras.cli.dispatch import main

sys.exit(main())
