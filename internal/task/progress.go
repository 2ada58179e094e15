package task

// Progress shows how far a long operation has got. The task package
// declares what it needs; the cli package gives it the terminal's progress
// line (internal/progress). nil shows nothing.
type Progress interface {
	// Start begins a meter titled title ("checking worktrees") counting up
	// to total (0 when the total is not known); bytes says the counts are
	// sizes.
	Start(title string, total int64, bytes bool) Meter
}

// Meter is one operation's progress. Its methods may be called from many
// goroutines at once.
type Meter interface {
	Add(n int64) // n more done
	Done()       // the operation ended
}

// noMeter is the Meter of a Manager without Progress.
type noMeter struct{}

func (noMeter) Add(int64) {}
func (noMeter) Done()     {}

// StartMeter starts a StartMeter on m.Progress, or one that shows nothing.
func (m *Manager) StartMeter(title string, total int64, bytes bool) Meter {
	if m.Progress == nil {
		return noMeter{}
	}
	return m.Progress.Start(title, total, bytes)
}
