"""Diff of two big server saves that differ in one field, next to decoding everything first.

Both run in the same process, interleaved, best of N. ``diff_bytes`` matches
untouched chunks on their original bytes and decodes only those that differ;
the alternative decodes every chunk of both saves and then compares. Also
reports the scaling with the number of players.

    python3 bench/bench_diff.py [--repeat 3]
"""

from __future__ import annotations

import argparse

from savecraft import api, diff
from savecraft.formats.tirnanog.save.sample import server_save

from timing import best





def pair(users: int) -> tuple[bytes, bytes]:
    a = api.build(server_save(users=users))
    save = api.parse(a)
    save.users[users // 2].entity.x += 1
    return a, api.build(save)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    a, b = pair(10_000)

    def by_bytes() -> None:
        assert len(diff.diff_bytes(a, b).changes) == 1

    def decode_all_then_diff() -> None:
        x, y = api.parse(a), api.parse(b)
        x.chunks.decode_all()
        y.chunks.decode_all()
        assert len(diff.diff(x, y).changes) == 1

    t_diff = best(by_bytes, args.repeat)
    t_all = best(decode_all_then_diff, args.repeat)
    print(f"10,000 users, one changed field: diff {t_diff * 1000:.0f} ms, "
          f"decode everything then diff {t_all * 1000:.0f} ms (ratio {t_all / t_diff:.1f})")
    base = None
    for users in (2_500, 5_000, 10_000, 20_000):
        x, y = pair(users)
        t = best(lambda: diff.diff_bytes(x, y), args.repeat)
        base = base or t / users
        print(f"{users:>6,} users: {t * 1000:7.1f} ms  ({t / users / base:.2f}x the per-user time at 2,500)")


if __name__ == "__main__":
    main()
