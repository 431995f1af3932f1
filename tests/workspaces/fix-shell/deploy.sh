#!/bin/bash
# Tab-indented, with non-ASCII text before the fixed spans (tests/integration/test_fixes_rust_go.py).
deploy() {
	cd $1
	echo "🚀 déploiement vers" $target $2
		if [ $mode == fast ]; then echo `date`; fi
}
for f in *.txt; do echo $f; done
