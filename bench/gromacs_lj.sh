# bench/gromacs_lj.sh — sourced by bench/compare_peers.sh and bench/mixed_precision.sh: GROMACS
# 2022.5 on the in.lj melt in argon units (sigma 0.34 nm, epsilon 0.996 kJ/mol, 39.948 u: tau
# 2.1533 ps, dt 0.005 tau; rvdw 2.5 sigma plain cut-off, rlist 2.8 sigma fixed by
# verlet-buffer-tolerance = -1, no charges, comm-mode None, leap-frog NVE).
#   gmx_find          sets gmx_mixed, gmx_double (builds for this CPU's widest SIMD level, AVX-512
#                     or AVX2, in $SCANMD_GMX_CACHE, built by bench/build_gromacs.sh when missing
#                     unless SCANMD_GMX_BUILD=0; else Debian's SSE4.1 gmx / gmx_d, said in gmx_note)
#   gmx_simd GMX      the SIMD instructions a binary was built for
#   gromacs_start DATA DIR   a LAMMPS data file in LJ units → DIR/conf.g96 + DIR/topol.top
#   grompp GMX DIR STEPS NSTLIST ENERGY_EVERY   → DIR/topol.tpr
# Needs $repo (the checkout) set by the caller.
sigma=0.34 eps=0.996 mass=39.948
# tau = sigma sqrt(m / eps) in ps; dt = 0.005 tau
tau_ps=$(awk -v s=$sigma -v e=$eps -v m=$mass 'BEGIN {printf "%.9g", s * sqrt(m / e)}')
dt_ps=$(awk -v t="$tau_ps" 'BEGIN {printf "%.9g", 0.005 * t}')
# pressure unit eps / sigma^3 in bar (1 kJ/mol/nm^3 = 16.6054 bar)
p_bar=$(awk -v s=$sigma -v e=$eps 'BEGIN {printf "%.9g", e / (s * s * s) * 16.6054}')

gmx_find() {
  local gcache=${SCANMD_GMX_CACHE:-$HOME/.cache/scanmd} v b deb
  gmx_mixed=$(SCANMD_GMX_CACHE=$gcache bash "$repo/bench/build_gromacs.sh" --where mixed)
  gmx_double=$(SCANMD_GMX_CACHE=$gcache bash "$repo/bench/build_gromacs.sh" --where double)
  if [[ ${SCANMD_GMX_BUILD:-1} != 0 && (! -x $gmx_mixed || ! -x $gmx_double) ]]; then
    echo "building GROMACS 2022.5 (this CPU's SIMD level) into $gcache (slow; SCANMD_GMX_BUILD=0 skips)"
    SCANMD_GMX_CACHE=$gcache bash "$repo/bench/build_gromacs.sh" both || echo "the GROMACS build failed"
  fi
  gmx_note=""
  for v in mixed double; do
    b=gmx_$v
    if [[ ! -x ${!b} ]]; then
      deb=/usr/bin/gmx
      [[ $v == double ]] && deb=/usr/bin/gmx_d
      [[ -x $deb ]] || { echo "no GROMACS $v: neither ${!b} nor $deb (apt-get install gromacs)" >&2; return 1; }
      echo "NOTE: no GROMACS $v build at ${!b}: using Debian's $deb (SSE4.1 kernels, about half as fast)"
      gmx_note+="GROMACS $v: Debian's $deb (SSE4.1 kernels), not a build for this CPU. "
      printf -v "$b" %s "$deb"
    fi
  done
}
gmx_simd() { "$1" --version 2> /dev/null | awk -F': *' '/^SIMD instructions/ && !v {v = $2} END {print v}' || true; }

gromacs_start() {  # data dir
  python3 "$repo/bench/lammps_data_to_gromacs.py" "$1" "$2" $sigma $eps $mass
}
gromacs_mdp() {  # steps nstlist energy_every → mdp on stdout
  cat << MDP
integrator = md
dt = $dt_ps
nsteps = $1
cutoff-scheme = Verlet
nstlist = $2
verlet-buffer-tolerance = -1
rlist = $(awk -v s=$sigma 'BEGIN {print 2.8 * s}')
vdwtype = Cut-off
vdw-modifier = None
rvdw = $(awk -v s=$sigma 'BEGIN {print 2.5 * s}')
coulombtype = Cut-off
coulomb-modifier = None
rcoulomb = $(awk -v s=$sigma 'BEGIN {print 2.5 * s}')
DispCorr = no
tcoupl = no
pcoupl = no
comm-mode = None
continuation = yes
gen-vel = no
nstcalcenergy = $3
nstenergy = $3
nstlog = $3
MDP
}
grompp() {  # gmx dir steps nstlist energy_every → dir/topol.tpr
  gromacs_mdp "$3" "$4" "$5" > "$2/grompp.mdp"
  (cd "$2" && "$1" grompp -f grompp.mdp -c conf.g96 -p topol.top -o topol.tpr -maxwarn 1 > grompp.log 2>&1) ||
    { echo "grompp failed, see:" >&2; tail -20 "$2/grompp.log" >&2; return 1; }
}
