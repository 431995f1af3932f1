import sys

from lintel.frontends.cli import main

sys.exit(main())
