package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// tcpTimeWait is /proc/net/tcp's state of a closed socket's leftover: it belongs to no one
// (uid 0), so it must never be mistaken for the peer.
const tcpTimeWait = "06"

// Columns of a /proc/net/tcp row: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
const (
	procTCPUID   = 7
	procTCPInode = 9
)

// peerUID names the user owning the other end of an accepted loopback TCP connection: the
// row of /proc/net/tcp (or tcp6) whose local end is our peer's address and whose remote end
// is ours. The kernel fills that row from the peer's socket, so the peer cannot forge it.
func peerUID(c net.Conn) (uint32, bool) {
	row, ok := peerSocketRow(c.LocalAddr(), c.RemoteAddr())
	if !ok {
		return 0, false
	}
	uid, err := strconv.ParseUint(row[procTCPUID], 10, 32)
	return uint32(uid), err == nil
}

// peerSocketRow is the /proc/net/tcp{,6} row of the peer's socket of the connection between
// local (ours) and remote (the peer's).
func peerSocketRow(localAddr, remoteAddr net.Addr) ([]string, bool) {
	local, lok := localAddr.(*net.TCPAddr)
	remote, rok := remoteAddr.(*net.TCPAddr)
	if !lok || !rok {
		return nil, false
	}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		v6 := strings.HasSuffix(table, "6")
		peer, self := procEndpoint(remote, v6), procEndpoint(local, v6)
		if peer == "" || self == "" {
			continue
		}
		if row, ok := rowInTable(table, peer, self); ok {
			return row, true
		}
	}
	return nil, false
}

// rowInTable reads one table for the row local=peer, remote=self.
func rowInTable(path, peer, self string) ([]string, bool) {
	file, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer file.Close()
	rows := bufio.NewScanner(file)
	for rows.Scan() {
		fields := strings.Fields(rows.Text())
		if len(fields) <= procTCPInode || fields[1] != peer || fields[2] != self || fields[3] == tcpTimeWait {
			continue
		}
		return fields, true
	}
	return nil, false
}

// procEndpoint spells an address as /proc/net/tcp does: each 32-bit word of the address in
// the host's byte order, in hex, then the port. An IPv4 peer appears in tcp6 as ::ffff:a.b.c.d.
func procEndpoint(addr *net.TCPAddr, v6 bool) string {
	ip := addr.IP.To4()
	if v6 {
		ip = addr.IP.To16()
	} else if ip == nil {
		return ""
	}
	var hex strings.Builder
	for i := 0; i < len(ip); i += 4 {
		fmt.Fprintf(&hex, "%08X", binary.NativeEndian.Uint32(ip[i:i+4]))
	}
	return fmt.Sprintf("%s:%04X", hex.String(), addr.Port)
}
