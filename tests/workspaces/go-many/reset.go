package many

import "os"

// Reset goes back to the start directory and drops the lock files, ignoring errors.
func Reset(dir string) {
	os.Remove(dir + "/a.lock")
	os.Remove(dir + "/b.lock")
	os.Remove(dir + "/c.lock")
	os.Remove(dir + "/d.lock")
	os.Remove(dir + "/e.lock")
	os.Chdir(dir)
}
