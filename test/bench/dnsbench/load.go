package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"
)

// loadResult is the outcome of one load run against one server.
type loadResult struct {
	queries   int64 // answered correctly
	failures  int64 // timeouts, wrong rcode or empty answers
	elapsed   time.Duration
	latencies []time.Duration
}

func (r loadResult) qps() float64 { return float64(r.queries) / r.elapsed.Seconds() }

// percentile of the latencies, in milliseconds.
func (r loadResult) percentile(p float64) float64 {
	if len(r.latencies) == 0 {
		return 0
	}
	i := min(int(float64(len(r.latencies))*p), len(r.latencies)-1)
	return float64(r.latencies[i]) / float64(time.Millisecond)
}

// packQueries packs an A query for each name, once, so that the load
// generator only stamps an ID on each.
func packQueries(names []string) ([][]byte, error) {
	out := make([][]byte, len(names))
	for i, n := range names {
		m := new(dns.Msg)
		m.SetQuestion(n, dns.TypeA)
		m.RecursionDesired = false
		raw, err := m.Pack()
		if err != nil {
			return nil, err
		}
		out[i] = raw
	}
	return out, nil
}

// generate runs closed-loop UDP clients (each waits for its answer before
// asking again) against target until d has passed or limit queries were
// sent, each client asking random names of queries.
func generate(target string, queries [][]byte, clients int, d time.Duration, limit int64) (loadResult, error) {
	var (
		sent     atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		res      loadResult
		firstErr error
	)
	start := time.Now()
	deadline := start.Add(d)
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := client(target, queries, uint64(w), deadline, &sent, limit)
			mu.Lock()
			defer mu.Unlock()
			res.queries += r.queries
			res.failures += r.failures
			res.latencies = append(res.latencies, r.latencies...)
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	slices.Sort(res.latencies)
	return res, firstErr
}

func client(target string, queries [][]byte, seed uint64, deadline time.Time, sent *atomic.Int64, limit int64) (loadResult, error) {
	var res loadResult
	conn, err := net.Dial("udp", target)
	if err != nil {
		return res, err
	}
	defer func() { _ = conn.Close() }()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	out, in := make([]byte, 512), make([]byte, 4096)
	var id uint16
	for time.Now().Before(deadline) && sent.Add(1) <= limit {
		q := queries[rng.IntN(len(queries))]
		n := copy(out, q)
		id++
		binary.BigEndian.PutUint16(out, id)
		t0 := time.Now()
		if _, err := conn.Write(out[:n]); err != nil {
			return res, err
		}
		ok, err := await(conn, in, id, t0.Add(time.Second))
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				res.failures++
				continue
			}
			return res, err
		}
		if !ok {
			res.failures++
			continue
		}
		res.queries++
		res.latencies = append(res.latencies, time.Since(t0))
	}
	return res, nil
}

// await reads until the answer to id arrives; ok is false when it is not
// a NOERROR with at least one answer.
func await(conn net.Conn, buf []byte, id uint16, deadline time.Time) (bool, error) {
	if err := conn.SetReadDeadline(deadline); err != nil {
		return false, err
	}
	for {
		n, err := conn.Read(buf)
		if err != nil {
			return false, err
		}
		if n < 12 || binary.BigEndian.Uint16(buf) != id {
			continue // a late answer to an earlier, timed-out query
		}
		rcode := buf[3] & 0x0f
		answers := binary.BigEndian.Uint16(buf[6:8])
		return rcode == dns.RcodeSuccess && answers > 0, nil
	}
}

// verify asks both servers every name over UDP and fails on the first
// answer that differs.
func verify(a, b *server, names []string) error {
	c := &dns.Client{Timeout: 2 * time.Second}
	for _, n := range names {
		var got [2]string
		for i, s := range []*server{a, b} {
			m := new(dns.Msg)
			m.SetQuestion(n, dns.TypeA)
			r, _, err := c.Exchange(m, s.target())
			if err != nil {
				return fmt.Errorf("%s %s: %w", s.name, n, err)
			}
			got[i] = answerKey(r)
		}
		if got[0] != got[1] {
			return fmt.Errorf("%s: %s answers %s, %s answers %s", n, a.name, got[0], b.name, got[1])
		}
	}
	fmt.Fprintf(os.Stderr, "verified: %d names answered alike by %s and %s\n", len(names), a.name, b.name)
	return nil
}

func answerKey(m *dns.Msg) string {
	var data []string
	for _, rr := range m.Answer {
		data = append(data, rr.String())
	}
	slices.Sort(data)
	return fmt.Sprintf("%s %v", dns.RcodeToString[m.Rcode], data)
}
