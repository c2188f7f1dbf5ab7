//go:build !race

package charlm

const raceEnabled = false
