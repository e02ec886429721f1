"""One module per `kernelgen` subcommand; each only parses arguments and renders results."""
