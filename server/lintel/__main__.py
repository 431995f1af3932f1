import sys

from lintel.frontends.warm.client import main

sys.exit(main())
