//go:build race

package main

// raceEnabled: the tests run with -race, so the e2e tests build the server
// binary with -race too and every real-client run doubles as a race test.
const raceEnabled = true
