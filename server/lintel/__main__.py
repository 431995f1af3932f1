import sys

from lintel.cli import main

sys.exit(main())
