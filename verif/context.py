"""What every sequence of a test shares: the width, the bus, the design, the random stream,
the model and the run's switches, in one typed object (SeqContext), built once per test by
`SeqContext.for_run` (verif/tb_mult.py, verif/tb_rsa.py) or directly by a unit test.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from montverif.host import environment
from montverif.host.secrets import Secrets
from montverif.models.registry import get_algo
from montverif.models.result import Result
from montverif.spec.design import Design
from montverif.verif.config import RunConfig
from montverif.verif.steer import Bias, Model

Precompute = Callable[[int], dict[str, int]]  # m -> the registers the host computes from it


@dataclass(frozen=True)
class SeqContext:
    n: int
    bus_w: int
    design: Design
    rng: random.Random
    # m -> the registers the host computes from the modulus (regmap `precomputed`)
    precompute: Precompute | None = None
    # coverage steering (verif/steer.py, the run's `bias`): None = plain random stimulus
    bias: Bias | None = None
    # model(x, y, m) -> Result: lets steering check candidates, sizes the done watchdog
    model: Model | None = None
    # the design chooses GF(p) or GF(2^n) per operation (CTRL.FIELD at START)
    has_field: bool = False
    # the build parameters beyond N (the RSA sequences' cycle counts)
    params: dict[str, int] = field(default_factory=dict)
    # MV_DONE_TIMEOUT: the done watchdog in cycles (None: from the design's cycle count)
    done_timeout: int | None = None
    # MV_BATCH=0: every item is sent alone (batch() gathers nothing; the tests compare)
    batching: bool = True
    # --keep-secrets: the design's secret operands in clear in messages (else digests)
    keep_secrets: bool = False
    # the draws beyond M that a design's operand domain allows (LoaderSeq.widen): a stream of
    # their own, so that every other draw is the same whatever the domains (None: seed 0)
    domain_rng: random.Random | None = None

    @property
    def secrets(self) -> Secrets:
        """How messages write the design's secret registers (montverif.host.secrets)."""
        return Secrets.of(self.design.secret, self.n, self.keep_secrets)

    @staticmethod
    def for_run(run: RunConfig, design: Design, rng: random.Random, *,
                stimulus: bool = True, domain_rng: random.Random | None = None) -> SeqContext:
        """The context of a test of `run` on `design`. `stimulus`: with the multiplier
        sequences' model, steering and field choice (the RSA sequences use none of them)."""
        algo = get_algo(design.model)
        n, params = run.n, run.params

        def precompute(m: int) -> dict[str, int]:
            return algo.precomputed(m, n, params)

        timeout = environment.DONE_TIMEOUT.lookup()
        common = SeqContext(n=n, bus_w=run.bus_w, design=design, rng=rng,
                            precompute=precompute, params=params,
                            done_timeout=int(timeout) if timeout is not None else None,
                            batching=not environment.BATCH.equals("0", "1"),
                            keep_secrets=run.keep_secrets, domain_rng=domain_rng)
        if not stimulus:
            return common
        func = algo.model(params)

        def model(x: int, y: int, m: int) -> Result:
            return func(x, 0, y, 0, m, n) if algo.halves else func(x, y, m, n)

        return replace(common, bias=Bias.from_text(run.bias), model=model, has_field=algo.has_field)
