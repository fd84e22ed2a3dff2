package main

import (
	"net"
	"os"
	"strconv"
	"syscall"
)

// peerPID names the process holding the peer's end of a loopback TCP connection: the inode of
// the peer's socket (its /proc/net/tcp row), found among the open files of this user's
// processes. Other users' processes are not ours to read, and the listener refuses their
// connections anyway. Only a confirm question asks, so the walk through /proc is rare.
func peerPID(local, remote net.Addr) (int, bool) {
	row, ok := peerSocketRow(local, remote)
	if !ok || row[procTCPInode] == "0" {
		return 0, false
	}
	socket := "socket:[" + row[procTCPInode] + "]"
	processes, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	uid := uint32(os.Getuid())
	for _, process := range processes {
		pid, err := strconv.Atoi(process.Name())
		if err != nil || !ownedBy(process, uid) {
			continue
		}
		if holdsFile(pid, socket) {
			return pid, true
		}
	}
	return 0, false
}

func ownedBy(entry os.DirEntry, uid uint32) bool {
	info, err := entry.Info()
	if err != nil {
		return false
	}
	stat, ok := info.Sys().(*syscall.Stat_t)
	return ok && stat.Uid == uid
}

// holdsFile: one of the process's descriptors is target (a readlink of /proc/<pid>/fd/<n>).
func holdsFile(pid int, target string) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	descriptors, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range descriptors {
		if link, err := os.Readlink(dir + fd.Name()); err == nil && link == target {
			return true
		}
	}
	return false
}
