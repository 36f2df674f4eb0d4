! mon_deadlock_f.f90 - Fortran ('use mpi'): every rank receives from its
! left neighbour first, nobody sends: a deadlock.
program mon_deadlock_f
  use mpi
  implicit none
  integer :: rank, nprocs, ierr, buf
  integer :: status(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  buf = 0
  call MPI_Recv(buf, 1, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 8, MPI_COMM_WORLD, status, ierr) ! mpiwatch: blame
  call MPI_Send(buf, 1, MPI_INTEGER, mod(rank + 1, nprocs), 8, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program mon_deadlock_f
