package sandbox

import (
	"fmt"
	"strings"
	"testing"
)

func TestPlanCloudMembers(t *testing.T) {
	three := []string{"member-1", "member-2", "member-3"}
	cases := []struct {
		name     string
		clusters []string
		asked    CloudPlacement
		want     string // cluster=clouds,accounts,policy server,metrics,health;...
		wantErr  string
	}{{
		name:     "two clusters or more: AWS into member-1, Azure into member-2",
		clusters: three,
		want: "member-1=[AWS],[aws-emulator],https://127.0.0.1:16750,16748,16749;" +
			"member-2=[Azure],[azure-emulator],https://127.0.0.1:16753,16751,16752",
	}, {
		name:     "one cluster: both into member-1, on the ports of old",
		clusters: []string{"member-1"},
		want:     "member-1=[AWS Azure],[aws-emulator azure-emulator],https://127.0.0.1:16750,16748,16749",
	}, {
		name:     "--cloud-cluster puts both into one",
		clusters: three,
		asked:    CloudPlacement{Cluster: "member-3"},
		want:     "member-3=[AWS Azure],[aws-emulator azure-emulator],https://127.0.0.1:16750,16748,16749",
	}, {
		name:     "a cloud's own cluster wins over --cloud-cluster",
		clusters: three,
		asked:    CloudPlacement{Cluster: "member-3", Azure: "member-1"},
		want: "member-1=[Azure],[azure-emulator],https://127.0.0.1:16750,16748,16749;" +
			"member-3=[AWS],[aws-emulator],https://127.0.0.1:16753,16751,16752",
	}, {
		name:     "members take their ports in cluster order",
		clusters: three,
		asked:    CloudPlacement{AWS: "member-3", Azure: "member-2"},
		want: "member-2=[Azure],[azure-emulator],https://127.0.0.1:16750,16748,16749;" +
			"member-3=[AWS],[aws-emulator],https://127.0.0.1:16753,16751,16752",
	}, {
		name:     "an unknown cluster",
		clusters: three,
		asked:    CloudPlacement{Azure: "member-4"},
		wantErr:  `no cluster "member-4" to import Azure into (it has member-1, member-2, member-3)`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, members, err := PlanCloudMembers(tc.clusters, tc.asked, 16443)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range members {
				got = append(got, fmt.Sprintf("%s=%v,%v,%s,%d,%d", m.Cluster, m.Clouds, m.Accounts, m.PolicyServer, m.Ports.Metrics, m.Ports.Health))
			}
			if s := strings.Join(got, ";"); s != tc.want {
				t.Errorf("members:\n got %s\nwant %s", s, tc.want)
			}
		})
	}
}

func TestChoosePlacement(t *testing.T) {
	three := []string{"member-1", "member-2", "member-3"}
	_, split, _ := PlanCloudMembers(three, CloudPlacement{}, 16443)
	_, together, _ := PlanCloudMembers([]string{"member-1"}, CloudPlacement{}, 16443)
	cases := []struct {
		name     string
		asked    CloudPlacement
		recorded []CloudMember
		want     string
		wantErr  string
	}{
		{name: "first run: what is asked", asked: CloudPlacement{Cluster: "member-2"}, want: "AWS into member-2, Azure into member-2"},
		{name: "first run, nothing asked: the defaults", want: "AWS into member-1, Azure into member-2"},
		{name: "re-run, nothing asked: where it is", recorded: split, want: "AWS into member-1, Azure into member-2"},
		{name: "re-run of a one-cluster sandbox grown to three keeps both in member-1", recorded: together,
			want: "AWS into member-1, Azure into member-1"},
		{name: "re-run asking for where it is", asked: CloudPlacement{Azure: "member-2"}, recorded: split,
			want: "AWS into member-1, Azure into member-2"},
		{name: "re-run moving a cloud", asked: CloudPlacement{Cluster: "member-1"}, recorded: split,
			wantErr: "imported already (AWS into member-1, Azure into member-2), not AWS into member-1, Azure into member-1: run 'antreaplus sandbox down' first"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := choosePlacement(tc.asked, tc.recorded, three)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.want {
				t.Errorf("placement %s, want %s", got, tc.want)
			}
		})
	}
}

func TestCloudPortLayout(t *testing.T) {
	emu, first, second := PlanCloud(16443), PlanCloudControllers(16443, 0), PlanCloudControllers(16443, 1)
	got := fmt.Sprintf("%d %d | %d %d %d | %d %d %d", emu.AWS, emu.Azure, first.Metrics, first.Health, first.Policy,
		second.Metrics, second.Health, second.Policy)
	// base+303..307 as before two members imported clouds; the second member's next.
	if want := "16746 16747 | 16748 16749 16750 | 16751 16752 16753"; got != want {
		t.Errorf("cloud ports %s, want %s", got, want)
	}
	if PortSpan != 321 {
		t.Errorf("PortSpan = %d, want 321 (the last cloud port is base+314, the tenancy processes'; then the external DNS stack's six)", PortSpan)
	}
}
