// Command noop does nothing: the floor of any exec plugin written in Go, the cost of starting
// a Go process at all.
package main

func main() {}
