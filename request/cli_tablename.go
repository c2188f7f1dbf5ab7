package request

// TableName names the schedule a report describes in its text: the
// generated family (--kind, the JSON key kind) or the CSV file read
// (--schedule, the JSON key schedule).
func TableName(kind, schedule string) string {
	if schedule != "" {
		return schedule
	}
	return kind
}
