! healthy_f: a correct Fortran MPI program (use mpi): a ring exchange and a
! reduction, for a number of rounds.
program healthy_f
  use mpi
  implicit none
  integer :: rank, nprocs, ierr, r, left, right
  integer :: status(MPI_STATUS_SIZE)
  double precision :: mine, got, total, s

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  total = 0d0
  do r = 1, 20
     mine = dble(rank + r)
     call MPI_Sendrecv(mine, 1, MPI_DOUBLE_PRECISION, right, r, got, 1, &
          MPI_DOUBLE_PRECISION, left, r, MPI_COMM_WORLD, status, ierr)
     call MPI_Allreduce(got, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
     total = total + s
  end do
  if (rank == 0) print '(a,i0,a,f0.1)', 'healthy_f: ', nprocs, ' ranks, total ', total
  call MPI_Finalize(ierr)
end program healthy_f
