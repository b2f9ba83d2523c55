package dnsforward

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func TestWriteInPlaceKeepsTheInodeAndRestoreUndoesIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "resolv.conf")
	original := "nameserver 10.0.0.2\nsearch example.com\noptions rotate\n"
	if err := os.WriteFile(path, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	// A hard link stands for the bind mount: it must see every write.
	link := path + ".mount"
	if err := os.Link(path, link); err != nil {
		t.Fatal(err)
	}
	before := inode(t, path)
	current, _ := ReadFile(path)
	plan := PlanResolvConf(current, nil, true, fwd, zones)
	if err := WriteInPlace(path, plan.Write); err != nil {
		t.Fatal(err)
	}
	if inode(t, path) != before {
		t.Error("WriteInPlace replaced the file")
	}
	if got, _ := os.ReadFile(link); !Managed(got) || string(got) != string(plan.Write) {
		t.Errorf("the other name of the file reads\n%s", got)
	}
	if wrote, err := Restore(path, plan.Original); err != nil || !wrote {
		t.Fatalf("Restore: wrote %v, %v", wrote, err)
	}
	if got, _ := os.ReadFile(link); string(got) != original {
		t.Errorf("after Restore the file reads\n%s\nwant\n%s", got, original)
	}
	if wrote, err := Restore(path, plan.Original); err != nil || wrote {
		t.Errorf("Restore of a file not managed: wrote %v, %v", wrote, err)
	}
}

func TestReadFileOfNoFileIsEmpty(t *testing.T) {
	got, err := ReadFile(filepath.Join(t.TempDir(), "none"))
	if err != nil || len(got) != 0 {
		t.Errorf("ReadFile of no file: %q, %v", got, err)
	}
}
