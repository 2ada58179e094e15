package proc

import (
	"encoding/json"
	"os"
)

// WriteStamp records this process's ID in the file at path, for a folder
// named after the process that made it (a merge's temporary worktree): a
// pid in a name carries no host, boot or PID namespace, so only the stamp
// can later prove that process dead (Check).
func WriteStamp(path string) error {
	return writeStamp(path, Self())
}

// WriteChildStamp records the ID of process pid, which this process has
// just started (so it runs on this host, this boot and in this PID
// namespace), in the file at path: for a folder named after that child.
func WriteChildStamp(path string, pid int) error {
	id := Self()
	id.PID, id.Start = pid, ""
	if st, err := sys.stat(pid); err == nil {
		id.Start = st.start
	}
	return writeStamp(path, id)
}

func writeStamp(path string, id ID) error {
	data, err := json.Marshal(id)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o666)
}

// ReadStamp reads what WriteStamp wrote.
func ReadStamp(path string) (ID, error) {
	var id ID
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &id)
	}
	return id, err
}
