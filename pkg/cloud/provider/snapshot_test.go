package provider

import (
	"testing"
)

func TestSnapshotSortAndLookup(t *testing.T) {
	s := &Snapshot{
		VPCs:     []VPC{{ID: "vpc-b"}, {ID: "vpc-a"}},
		VMs:      []VM{{ID: "i-3"}, {ID: "i-1", NICs: []NIC{{ID: "eni-z", Primary: true}, {ID: "eni-a"}}}, {ID: "i-2"}},
		Services: []Service{{ID: "arn:b"}, {ID: "arn:a"}},
	}
	s.Sort()
	if s.VPCs[0].ID != "vpc-a" || s.VMs[0].ID != "i-1" || s.VMs[2].ID != "i-3" || s.Services[0].ID != "arn:a" {
		t.Fatalf("not sorted: %+v", s)
	}
	vm, ok := s.VM("i-1")
	if !ok || vm.NICs[0].ID != "eni-z" {
		t.Fatalf("VM(i-1) = %+v, %v; want primary NIC kept first", vm, ok)
	}
	if _, ok := s.VM("i-9"); ok {
		t.Fatal("VM(i-9) found in a snapshot without it")
	}
}
