from panelbot.cli import main

raise SystemExit(main())
