package vmagent

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/google/nftables"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// DefaultTable is the name of the nftables table (family inet) the agent
// owns. Nothing else in the VM's ruleset is touched.
const DefaultTable = "antreaplus"

// Firewall enforces the rules of a View.
type Firewall interface {
	// Apply replaces what is enforced with view, atomically: on error the
	// rules in force before stay in force.
	Apply(view *wire.View) (ApplyResult, error)
}

// ApplyResult says what an Apply put in force.
type ApplyResult struct {
	// Rules is the number of nftables rules in the table.
	Rules int
	// Skipped are endpoints whose rules were not enforced because they
	// have no address to scope them to.
	Skipped []string
	// Replaced is what the rules the apply replaced counted (a Firewall
	// that counts, see Counter): their counters end with them. Nil when
	// they could not be read (CountError says why).
	Replaced   RuleCounts
	CountError error
}

// NFTables is a Firewall that renders a View into one nftables table and
// replaces the table in one netlink batch, which the kernel applies as one
// transaction. Its first rules accept established and related traffic, so
// replacing the table never cuts a connection that was allowed.
type NFTables struct {
	// Table is the table's name; DefaultTable when empty.
	Table string
	// NetNSFd, when not zero, is a network namespace to program instead of
	// the agent's own.
	NetNSFd int
	// NoCounters renders the rules without their counters: the kernel
	// counts nothing, and reports carry no counts (policy stats stay at
	// zero). The counters cost one increment per packet a rule decides
	// (measured: docs/trace.md, Figures).
	NoCounters bool
}

// batchBuffer is the socket buffer size the agent asks for: a batch of
// thousands of rules is larger than the default, and the kernel takes a
// batch in a single message.
const batchBuffer = 64 << 20

// Apply implements Firewall.
func (n *NFTables) Apply(view *wire.View) (ApplyResult, error) {
	conn, err := n.conn()
	if err != nil {
		return ApplyResult{}, err
	}
	b := &builder{conn: conn, table: n.table(), sets: map[string]*nftables.Set{}, noCounters: n.NoCounters}
	// The counters of the table in force, read before it is replaced: what
	// its rules count between this read and the flush is lost, never
	// counted twice.
	replaced, countErr := readCounters(conn, b.table)
	b.render(view)
	if b.err != nil {
		return ApplyResult{}, fmt.Errorf("rendering rules: %w", b.err)
	}
	if err := conn.Flush(); err != nil {
		return ApplyResult{}, fmt.Errorf("replacing nftables table %s (%d rules): %w", b.table.Name, b.rules, err)
	}
	return ApplyResult{Rules: b.rules, Skipped: b.skipped, Replaced: replaced, CountError: countErr}, nil
}

// Remove deletes the table, if it exists.
func (n *NFTables) Remove() error {
	conn, err := n.conn()
	if err != nil {
		return err
	}
	t := n.table()
	conn.AddTable(t)
	conn.DelTable(t)
	if err := conn.Flush(); err != nil {
		return fmt.Errorf("deleting nftables table %s: %w", t.Name, err)
	}
	return nil
}

func (n *NFTables) table() *nftables.Table {
	name := n.Table
	if name == "" {
		name = DefaultTable
	}
	return &nftables.Table{Family: nftables.TableFamilyINet, Name: name}
}

func (n *NFTables) conn() (*nftables.Conn, error) {
	opts := []nftables.ConnOption{nftables.WithSockOptions(largeBuffers)}
	if n.NetNSFd != 0 {
		opts = append(opts, nftables.WithNetNSFd(n.NetNSFd))
	}
	conn, err := nftables.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("opening nftables: %w", err)
	}
	return conn, nil
}

// largeBuffers raises the netlink socket's buffers above the system's
// limits (which needs CAP_NET_ADMIN, as nftables does anyway).
func largeBuffers(c *netlink.Conn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = raw.Control(func(fd uintptr) {
		serr = errors.Join(
			syscall.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, batchBuffer),
			syscall.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, batchBuffer))
	})
	if err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("setting netlink socket buffers: %w", serr)
	}
	return nil
}
