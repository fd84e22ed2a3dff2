package main

import (
	"encoding/binary"
	"net"
	"net/netip"
	"syscall"
	"unsafe"
)

// Windows' table of TCP connections with the pid owning each end (iphlpapi's
// GetExtendedTcpTable, TCP_TABLE_OWNER_PID_CONNECTIONS): the same question /proc/net/tcp and
// /proc/<pid>/fd answer on Linux, asked without privileges.
var getExtendedTCPTable = syscall.NewLazyDLL("iphlpapi.dll").NewProc("GetExtendedTcpTable")

const (
	tcpTableOwnerPIDConnections = 4
	errorInsufficientBuffer     = 122
	afInet6                     = 23
)

// One row of MIB_TCPROW_OWNER_PID and MIB_TCP6ROW_OWNER_PID, in bytes, and where its fields sit.
type tcpRowLayout struct {
	size                                              int
	localAddr, localPort, remoteAddr, remotePort, pid int
	addrLen                                           int
}

var (
	tcp4Row = tcpRowLayout{size: 24, localAddr: 4, localPort: 8, remoteAddr: 12, remotePort: 16, pid: 20, addrLen: 4}
	tcp6Row = tcpRowLayout{size: 56, localAddr: 0, localPort: 20, remoteAddr: 24, remotePort: 44, pid: 52, addrLen: 16}
)

// peerPID names the process holding the peer's end of a loopback TCP connection: the row whose
// local end is our remote one and whose remote end is our local one (our own row is the mirror).
// Only a confirm question asks, so reading the whole table is rare.
func peerPID(local, remote net.Addr) (int, bool) {
	ours, okLocal := addrPort(local)
	theirs, okRemote := addrPort(remote)
	if !okLocal || !okRemote {
		return 0, false
	}
	family, layout := uint32(syscall.AF_INET), tcp4Row
	if !theirs.Addr().Is4() {
		family, layout = afInet6, tcp6Row
	}
	table, ok := tcpTable(family)
	if !ok || len(table) < 4 {
		return 0, false
	}
	rows := int(binary.LittleEndian.Uint32(table))
	// Rows follow the count; MIB_TCP6TABLE_OWNER_PID aligns them as MIB_TCPTABLE_OWNER_PID does.
	for i := 0; i < rows; i++ {
		row := table[4+i*layout.size:]
		if len(row) < layout.size {
			break
		}
		if endpoint(row, layout.localAddr, layout.localPort, layout.addrLen) == theirs &&
			endpoint(row, layout.remoteAddr, layout.remotePort, layout.addrLen) == ours {
			// Pid 0 is Windows' (and Wine's) word for an owner it could not tell.
			pid := int(binary.LittleEndian.Uint32(row[layout.pid:]))
			return pid, pid != 0
		}
	}
	return 0, false
}

// tcpTable is the raw table for one address family, asked twice when it grew in between.
func tcpTable(family uint32) ([]byte, bool) {
	size := uint32(16 << 10)
	for attempt := 0; attempt < 4; attempt++ {
		buffer := make([]byte, size)
		r, _, _ := getExtendedTCPTable.Call(uintptr(unsafe.Pointer(&buffer[0])), uintptr(unsafe.Pointer(&size)), 0,
			uintptr(family), tcpTableOwnerPIDConnections, 0)
		switch r {
		case 0:
			return buffer[:size], true
		case errorInsufficientBuffer:
			continue // size now holds what the table needs
		default:
			return nil, false
		}
	}
	return nil, false
}

// endpoint reads an address and a port (network byte order in the low 16 bits) from a row.
func endpoint(row []byte, addrAt, portAt, addrLen int) netip.AddrPort {
	addr, _ := netip.AddrFromSlice(row[addrAt : addrAt+addrLen])
	port := binary.BigEndian.Uint16(row[portAt : portAt+2])
	return netip.AddrPortFrom(addr, port)
}

func addrPort(a net.Addr) (netip.AddrPort, bool) {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return netip.AddrPort{}, false
	}
	ap := tcp.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), true
}
