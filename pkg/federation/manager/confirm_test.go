package manager

import (
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/federation/health"
)

func TestConfirmReport(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	timing := reportTiming{statusPeriod: 5 * time.Second, grace: 60 * time.Second, lateAfter: 4 * time.Second}
	reachable := health.View{Supervisor: "b", Reachable: true, ReportedAt: at(0), LastReachable: at(-1)}
	tests := []struct {
		name string
		v    health.View
		peer peerSeen
		now  time.Time
		want health.View
	}{{
		name: "reachable, written 25 s before a live heartbeat: confirmed to 15 s before it",
		v:    reachable, peer: peerSeen{heartbeat: at(25), beating: true, read: at(28)}, now: at(26),
		want: health.View{Supervisor: "b", Reachable: true, ReportedAt: at(10), LastReachable: at(6)},
	}, {
		name: "read before the last heartbeat: confirmed only as of the read",
		v:    reachable, peer: peerSeen{heartbeat: at(40), beating: true, read: at(20)}, now: at(41),
		want: health.View{Supervisor: "b", Reachable: true, ReportedAt: at(5), LastReachable: at(1)},
	}, {
		name: "unreachable: its last reach stays what it wrote",
		v:    health.View{Supervisor: "b", ReportedAt: at(0), LastReachable: at(-30)},
		peer: peerSeen{heartbeat: at(25), beating: true, read: at(28)}, now: at(26),
		want: health.View{Supervisor: "b", ReportedAt: at(10), LastReachable: at(-30)},
	}, {
		name: "written after what the heartbeat confirms: unchanged",
		v:    health.View{Supervisor: "b", Reachable: true, ReportedAt: at(24), LastReachable: at(24)},
		peer: peerSeen{heartbeat: at(25), beating: true, read: at(28)}, now: at(26),
		want: health.View{Supervisor: "b", Reachable: true, ReportedAt: at(24), LastReachable: at(24)},
	}, {
		name: "heartbeat stopped (older than LateAfter): the report as written, aging out",
		v:    reachable, peer: peerSeen{heartbeat: at(25), beating: true, read: at(28)}, now: at(30),
		want: reachable,
	}, {
		name: "heartbeat released (its manager shut down): as written",
		v:    reachable, peer: peerSeen{heartbeat: at(25), read: at(28)}, now: at(26),
		want: reachable,
	}, {
		name: "report older than the grace while the heartbeat beats (its status loop stuck): as written, no longer vouching",
		v:    reachable, peer: peerSeen{heartbeat: at(70), beating: true, read: at(70)}, now: at(71),
		want: reachable,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := confirmReport(tt.v, tt.peer, tt.now, timing); got != tt.want {
				t.Errorf("confirmReport = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
