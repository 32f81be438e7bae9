package mariadb

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveStaleRespectsLiveOwners: a directory whose owner still holds
// its lock survives a sweep by another process; one whose owner is gone
// is removed.
func TestRemoveStaleRespectsLiveOwners(t *testing.T) {
	base := t.TempDir()
	live, _ := os.MkdirTemp(base, dirPrefix)
	held, err := lockOwner(live)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	dead, _ := os.MkdirTemp(base, dirPrefix)
	gone, err := lockOwner(dead)
	if err != nil {
		t.Fatal(err)
	}
	gone.Close()                              // its owner died
	fresh, _ := os.MkdirTemp(base, dirPrefix) // being created: no lock yet

	removeStale(base)
	for dir, want := range map[string]bool{live: true, dead: false, fresh: true} {
		_, err := os.Stat(dir)
		if exists := err == nil; exists != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(dir), exists, want)
		}
	}
}
