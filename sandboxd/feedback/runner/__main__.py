"""Entry point of the runner bundle (runner.pyz); see sbx_runner/__init__.py."""
from sbx_runner.main import main

main()
