"""The weekly status report of a repository: the week's numbers, one line each (stdlib only)."""

import argparse
import hashlib

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--repo", required=True)
parser.add_argument("--week", type=int, required=True)
args = parser.parse_args()

# Fixed numbers per repository and week: the report is the same on every run.
digest = hashlib.sha256(f"{args.repo}:{args.week}".encode()).digest()
print(f"Week {args.week} in {args.repo}: {digest[0] % 9 + 1} pull requests merged, {digest[1] % 5} issues opened.")
