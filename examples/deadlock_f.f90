! deadlock_f: the ring of blocking receives, in Fortran (mpif.h): every rank
! waits for its right neighbour before sending to its left one.
program deadlock_f
  implicit none
  include 'mpif.h'
  integer :: rank, nprocs, ierr, token
  integer :: status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  token = 0
  call MPI_Recv(token, 1, MPI_INTEGER, mod(rank + 1, nprocs), 7, MPI_COMM_WORLD, status, ierr) ! mpiwatch: blame
  call MPI_Send(token, 1, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 7, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program deadlock_f
