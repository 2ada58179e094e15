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
	data, err := json.Marshal(Self())
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
