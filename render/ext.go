package render

// Ext is the file extension a file of format f usually has (".txt",
// ".md", ".csv", ".json"; ".txt" for Bench, which benchstat reads as
// text), or "" for a value that is not a Format.
func (f Format) Ext() string {
	switch f {
	case Text, Bench:
		return ".txt"
	case Markdown:
		return ".md"
	case CSV:
		return ".csv"
	case JSON:
		return ".json"
	}
	return ""
}
