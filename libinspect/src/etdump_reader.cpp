// Placeholder: the ETDump reader is being written (issue #4).
