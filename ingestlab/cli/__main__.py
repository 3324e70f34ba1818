import sys

from ingestlab.cli import main

sys.exit(main())
