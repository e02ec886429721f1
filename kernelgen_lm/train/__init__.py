"""Training data the assistant keeps: the accepted-edit store."""
