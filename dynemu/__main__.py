from dynemu.cli import main

main()
