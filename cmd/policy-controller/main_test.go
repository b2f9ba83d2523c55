package main

import "testing"

func TestCheckDNSServer(t *testing.T) {
	for addr, ok := range map[string]bool{
		"":                   true,
		"10.96.0.53:53":      true,
		"127.0.53.1:16743":   true,
		"[fd00::53]:53":      true,
		"dns.example.com:53": true,
		"10.96.0.53":         false,
		":53":                false,
		"10.96.0.53:dns":     false,
		"10.96.0.53:70000":   false,
	} {
		if err := checkDNSServer(addr); (err == nil) != ok {
			t.Errorf("checkDNSServer(%q) = %v, want ok %v", addr, err, ok)
		}
	}
}
