package fedplugin

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/coredns/caddy"
)

// After an outage of its API server, the plugin's own informers are
// renewed (package outage), but the other plugins of the server keep
// theirs: the stock kubernetes plugin, which answers the member's own
// cluster.local names, would wait out client-go's back-off (up to a minute)
// before it sees changes made during the outage. So once the imports are
// listed again, the plugin restarts the whole CoreDNS instance, as the
// reload plugin does when the Corefile changes: the new instance lists
// everything afresh while the old one keeps answering on the same sockets,
// and takes over once its plugins have started (the kubernetes plugin waits
// for its caches then).

var instance struct {
	once       sync.Once
	current    atomic.Pointer[caddy.Instance]
	restarting atomic.Bool
}

// trackInstance records the running CoreDNS instance, once per process.
func trackInstance() {
	instance.once.Do(func() {
		caddy.RegisterEventHook(Name, func(event caddy.EventName, info any) error {
			if inst, ok := info.(*caddy.Instance); ok && event == caddy.InstanceStartupEvent {
				instance.current.Store(inst)
			}
			return nil
		})
	})
}

// restartAfterOutage restarts the running instance with its own Corefile,
// in the background (the caller is the renewal that the restart stops);
// one restart at a time, however many server blocks ask for it.
func restartAfterOutage(down time.Duration) {
	inst := instance.current.Load()
	if inst == nil || !instance.restarting.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer instance.restarting.Store(false)
		log.Infof("restarting the server after a %s outage of its API server, so that every plugin lists afresh", down.Round(time.Second))
		started := time.Now()
		if _, err := inst.Restart(inst.Caddyfile()); err != nil {
			log.Errorf("restarting the server after an outage: %v (the kubernetes plugin's names may lag until its informers retry)", err)
			return
		}
		log.Infof("restarted in %s", time.Since(started).Round(time.Millisecond))
	}()
}
