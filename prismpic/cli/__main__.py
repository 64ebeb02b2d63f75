from prismpic.cli import main

main()
