package settings

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a duration setting: "0" (none), a Go duration
// ("36h", "1h30m", "90s"), or a whole or decimal count of days or weeks
// ("7d", "1.5w"). A bare number other than 0 is refused: "7" could mean
// anything.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" || s == "" {
		return 0, nil
	}
	var unit time.Duration
	switch {
	case strings.HasSuffix(s, "d"):
		unit = 24 * time.Hour
	case strings.HasSuffix(s, "w"):
		unit = 7 * 24 * time.Hour
	}
	if unit != 0 {
		n, err := strconv.ParseFloat(s[:len(s)-1], 64)
		if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) || n*float64(unit) > math.MaxInt64 {
			return 0, fmt.Errorf("invalid duration %q (use e.g. 36h, 7d, 2w)", s)
		}
		return time.Duration(n * float64(unit)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid duration %q (use e.g. 30s, 2m, 36h, 7d)", s)
	}
	return d, nil
}

// FormatDuration prints d the way a person reads an age: "45s", "12m",
// "5h", "3d".
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}

// ParseSize reads a size setting in bytes: "0", "1048576", "500M",
// "20G", "1.5T"; k, M, G and T are powers of 1024, as in git's own
// configuration, with an optional trailing "B" or "iB".
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	num := strings.TrimSuffix(strings.TrimSuffix(s, "B"), "i")
	mult := 1.0
	if num != "" {
		switch num[len(num)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		}
		if mult != 1 {
			num = num[:len(num)-1]
		}
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n < 0 || math.IsNaN(n) || n*mult > math.MaxInt64 {
		return 0, fmt.Errorf("invalid size %q (use e.g. 500M, 20G)", s)
	}
	return int64(n * mult), nil
}

// FormatSize prints a byte count with a binary unit: "512B", "1.5M", "20G".
func FormatSize(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%dB", n)
	}
	v := float64(n)
	i := -1
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v < 10 {
		return fmt.Sprintf("%.1f%c", v, units[i])
	}
	return fmt.Sprintf("%.0f%c", v, units[i])
}

// ParseBool reads a boolean as git does: true/yes/on/1 and
// false/no/off/0 in any case, and "" (`key =`) as false. (A key with no
// "=" at all is true; the config reader passes it on as "true".)
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0", "":
		return false, nil
	}
	return false, fmt.Errorf("invalid boolean %q", s)
}
