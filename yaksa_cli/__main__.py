"""`python -m yaksa_cli …` is the `yaksa` command."""

from yaksa_cli.app import main

main()
