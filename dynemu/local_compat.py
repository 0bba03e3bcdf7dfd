"""DynamoDB Local's command line, accepted as it is: ``dynemu -jar DynamoDBLocal.jar -sharedDb
-dbPath ./data`` starts dynemu as DynamoDB Local would start.

DynamoDB Local's options ("DynamoDB local usage notes", DynamoDBLocal.UsageNotes.html) and what
each becomes:

    -port N                  --port N
    -inMemory                --in-memory
    -dbPath DIR              --data-dir DIR
    -sharedDb                --shared-db (one database for every access key and region)
    -cors ORIGINS            --cors ORIGINS (a comma-separated list, default *)
    -delayTransientStatuses  --transient-delays (CREATING, UPDATING, DELETING take time)
    -optimizeDbBeforeStartup accepted (dynemu's LevelDB compacts by itself); needs -dbPath
    -disableTelemetry        accepted (dynemu sends no telemetry)
    -help                    DynamoDB Local's options and how they map, then exit

Without ``-sharedDb`` DynamoDB Local keeps one database per access key id and region
(``myaccesskeyid_region.db``): dynemu's ``--isolate-access-keys``. A leading ``-jar FILE`` and
Java's own options (``-Djava.library.path=...``, ``-Xmx1g``, ``-XX:...``) are accepted and
ignored. What DynamoDB Local refuses is refused with one line: both ``-dbPath`` and
``-inMemory``, ``-optimizeDbBeforeStartup`` without ``-dbPath``, an option it does not know.
dynemu's own ``--flags`` may follow DynamoDB Local's on the same command line.
"""

from __future__ import annotations

from collections.abc import Sequence

from dynemu.config import SettingsError

VALUED = {"-port": "--port", "-dbPath": "--data-dir", "-cors": "--cors"}
SWITCHES = {
    "-inMemory": ["--in-memory"],
    "-sharedDb": ["--shared-db"],
    "-delayTransientStatuses": ["--transient-delays"],
    "-optimizeDbBeforeStartup": [],
    "-disableTelemetry": [],
}
JAVA_PREFIXES = ("-D", "-X", "-XX:", "-ea", "-server", "-client", "-verbose")

HELP = """\
dynemu accepts DynamoDB Local's command line (see `dynemu --help` for its own flags):

  -cors <arg>                 comma-separated allowed origins (default *)   --cors
  -dbPath <arg>               directory of the data                          --data-dir
  -delayTransientStatuses     CREATING/UPDATING/DELETING take time           --transient-delays
  -disableTelemetry           accepted: dynemu sends no telemetry
  -help                       this text
  -inMemory                   keep everything in memory                      --in-memory
  -optimizeDbBeforeStartup    accepted (needs -dbPath)
  -port <arg>                 port to listen on (default 8000)               --port
  -sharedDb                   one database for all access keys and regions   --shared-db
                              (without it: one per access key and region,    --isolate-access-keys)
  -jar <file>, -D..., -X...   Java's options: accepted and ignored
"""


def uses_local_flags(argv: Sequence[str]) -> bool:
    """True when ``argv`` is written in DynamoDB Local's form (single-dash options)."""
    return any(a == "-jar" or a == "-help" or a in VALUED or a in SWITCHES or a.startswith(JAVA_PREFIXES)
               for a in argv)  # fmt: skip


def translate(argv: Sequence[str]) -> list[str]:
    """dynemu's flags for a DynamoDB Local command line (dynemu's own ``--flags`` kept as
    they are). Raises SettingsError with DynamoDB Local's refusals."""
    out: list[str] = []
    seen: set[str] = set()
    args = list(argv)
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-jar":  # -jar DynamoDBLocal.jar: the Java launcher's, not an option of the server
            i += 2
            continue
        if a in VALUED:
            if i + 1 >= len(args) or args[i + 1].startswith("-") and not args[i + 1].lstrip("-").isdigit():
                raise SettingsError(f"Missing argument for option: {a[1:]}")
            out += [VALUED[a], args[i + 1]]
            seen.add(a)
            i += 2
            continue
        if a in SWITCHES:
            out += SWITCHES[a]
            seen.add(a)
        elif a.startswith("--"):  # dynemu's own flags, with their values
            out.append(a)
            while i + 1 < len(args) and not args[i + 1].startswith("-"):
                i += 1
                out.append(args[i])
        elif not a.startswith(JAVA_PREFIXES):
            raise SettingsError(f"Unrecognized option: {a} (DynamoDB Local's options: dynemu -help)")
        i += 1
    if "-dbPath" in seen and "-inMemory" in seen:
        raise SettingsError("You cannot specify both -dbPath and -inMemory")  # DynamoDBLocal.UsageNotes.html
    if "-optimizeDbBeforeStartup" in seen and "-dbPath" not in seen:
        raise SettingsError("-optimizeDbBeforeStartup needs -dbPath, so that the database files can be found")
    if "-sharedDb" not in seen and "--shared-db" not in out:
        out.append("--isolate-access-keys")  # DynamoDB Local's files: myaccesskeyid_region.db
    return out
